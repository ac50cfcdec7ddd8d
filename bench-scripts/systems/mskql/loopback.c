/* LD_PRELOAD shim for mskql: bind(2) of an IPv4 socket to INADDR_ANY becomes a bind to 127.0.0.1, everything
 * else goes to libc. mskql (pinned commit) always listens on every interface (pgwire.c binds INADDR_ANY and has no
 * option for the address); samebox's load tests target loopback only, so the server must not be reachable
 * from the network while it runs. This is samebox's code; mskql's source is not touched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
    static bind_fn real;
    if (!real) real = (bind_fn)dlsym(RTLD_NEXT, "bind");
    if (addr && addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        struct sockaddr_in in;
        memcpy(&in, addr, sizeof in);
        if (in.sin_addr.s_addr == htonl(INADDR_ANY)) {
            in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            return real(fd, (const struct sockaddr *)&in, sizeof in);
        }
    }
    return real(fd, addr, len);
}
