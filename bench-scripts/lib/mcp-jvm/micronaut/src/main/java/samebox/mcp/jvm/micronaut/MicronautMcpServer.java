package samebox.mcp.jvm.micronaut;

import io.micronaut.runtime.Micronaut;

/** Micronaut MCP server on the Netty HTTP server. */
public class MicronautMcpServer {
  public static void main(String[] args) {
    Micronaut.run(MicronautMcpServer.class, args);
  }
}
