/* LD_PRELOAD shim for mskql on Linux (SAMEBOX_MSKQL_TCP_CORK=off): setsockopt(IPPROTO_TCP, TCP_CORK, 1)
 * becomes a no-op, everything else goes to libc. mskql corks every client socket (TCP_NOPUSH on macOS,
 * where seed 001 ran, TCP_CORK on Linux) and never uncorks it, so on Linux each reply waits for the
 * kernel's 200 ms cork timer. Ignoring the cork keeps mskql's own TCP_NODELAY and sends each reply when
 * it is written, as the seed's platform did. This is samebox's code; mskql's source is not touched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);

int setsockopt(int fd, int level, int optname, const void *optval, socklen_t optlen) {
    static setsockopt_fn real;
    if (level == IPPROTO_TCP && optname == TCP_CORK) return 0;
    if (!real) real = (setsockopt_fn)dlsym(RTLD_NEXT, "setsockopt");
    return real(fd, level, optname, optval, optlen);
}
