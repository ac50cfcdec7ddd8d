package samebox.mcp.jvm.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import samebox.mcp.jvm.BenchSettings;
import samebox.mcp.jvm.FutureBackend;

/** Spring AI MCP server on WebMVC; virtual threads or not is a start-time property (java / java-vt). */
@SpringBootApplication
public class WebMvcMcpServer {

  public static void main(String[] args) {
    SpringApplication.run(WebMvcMcpServer.class, args);
  }

  @Bean(destroyMethod = "close")
  FutureBackend futureBackend() {
    return new FutureBackend(BenchSettings.fromEnvironment("java"));
  }
}
