package samebox.mcp.jvm.webflux;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import samebox.mcp.jvm.BenchSettings;
import samebox.mcp.jvm.FutureBackend;

/** Spring AI MCP server on WebFlux: reactive all the way (Reactor Netty server and client, reactive Lettuce). */
@SpringBootApplication
public class WebFluxMcpServer {

  /** Reactor Netty connection pool to the api-service, as the seed's WebFlux server (200). */
  static final int API_POOL_SIZE = 200;

  public static void main(String[] args) {
    SpringApplication.run(WebFluxMcpServer.class, args);
  }

  @Bean
  BenchSettings benchSettings() {
    return BenchSettings.fromEnvironment("java-webflux");
  }

  @Bean(destroyMethod = "shutdown")
  RedisClient redisClient(BenchSettings settings) {
    return FutureBackend.redisClient(settings);
  }

  @Bean(destroyMethod = "close")
  StatefulRedisConnection<String, String> redisConnection(RedisClient client) {
    return client.connect();
  }

  @Bean
  WebClient apiClient(BenchSettings settings) {
    ConnectionProvider pool = ConnectionProvider.builder("api-service").maxConnections(API_POOL_SIZE).build();
    return WebClient.builder()
        .baseUrl(settings.apiServiceUrl())
        .clientConnector(new ReactorClientHttpConnector(HttpClient.create(pool)))
        .build();
  }
}
