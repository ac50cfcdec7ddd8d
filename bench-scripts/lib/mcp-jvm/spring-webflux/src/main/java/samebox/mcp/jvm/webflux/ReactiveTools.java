package samebox.mcp.jvm.webflux;

import io.lettuce.core.KeyValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import samebox.mcp.jvm.BenchSettings;
import samebox.mcp.jvm.CheckoutItem;
import samebox.mcp.jvm.ToolLogic;

/**
 * The three tools as ASYNC Spring AI MCP tools: Mono pipelines, independent I/O zipped in parallel
 * (as the seed's WebFlux server), no thread ever blocks. Result shapes come from the shared ToolLogic.
 */
@Component
public class ReactiveTools {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final ToolLogic logic;
  private final RedisReactiveCommands<String, String> redis;
  private final WebClient api;

  public ReactiveTools(BenchSettings settings, StatefulRedisConnection<String, String> connection, WebClient api) {
    this.logic = new ToolLogic(settings.serverType());
    this.redis = connection.reactive();
    this.api = api;
  }

  @McpTool(name = "search_products", description = ToolLogic.SEARCH_DESCRIPTION)
  public Mono<CallToolResult> searchProducts(
      @McpToolParam(description = "Product category (default Electronics)", required = false) String category,
      @McpToolParam(description = "Minimum price (default 50)", required = false) Double min_price,
      @McpToolParam(description = "Maximum price (default 500)", required = false) Double max_price,
      @McpToolParam(description = "Maximum number of products to return (default 10)", required = false) Integer limit) {
    ToolLogic.Search a = ToolLogic.search(category, min_price, max_price, limit);
    Mono<String> found = get(ToolLogic.searchPath(a), "api-service search");
    Mono<List<String>> popular = redis.zrevrange(ToolLogic.POPULAR_KEY, 0, 9).collectList();
    return result(Mono.zip(found, popular).map(t -> logic.searchResult(a, t.getT1(), t.getT2())));
  }

  @McpTool(name = "get_user_cart", description = ToolLogic.CART_DESCRIPTION)
  public Mono<CallToolResult> getUserCart(
      @McpToolParam(description = "User id, e.g. user-00042", required = false) String user_id) {
    String userId = ToolLogic.userId(user_id);
    // The cart comes first: its first item decides which product is looked up.
    Mono<String> cart = redis.hgetall(ToolLogic.cartKey(userId))
        .collectMap(KeyValue::getKey, KeyValue::getValue)
        .flatMap(c -> {
          // The product body is fetched for its I/O and discarded, as in the seed.
          Mono<String> product = get("/products/" + ToolLogic.firstProductId(c), "api-service product");
          Mono<List<String>> history = redis.lrange(ToolLogic.historyKey(userId), 0, 4).collectList();
          return Mono.zip(product, history).map(t -> logic.cartResult(userId, (Map<String, String>) c, t.getT2()));
        });
    return result(cart);
  }

  @McpTool(name = "checkout", description = ToolLogic.CHECKOUT_DESCRIPTION)
  public Mono<CallToolResult> checkout(
      @McpToolParam(description = "User id, e.g. user-00042", required = false) String user_id,
      @McpToolParam(description = "Items to buy: product_id and quantity", required = false) List<CheckoutItem> items) {
    String userId = ToolLogic.userId(user_id);
    List<CheckoutItem> lines = ToolLogic.items(items);
    Mono<String> done = Mono.defer(() -> {
      String rateKey = ToolLogic.rateLimitKey(userId);
      long now = System.currentTimeMillis() / 1000;
      // POST, INCR, RPUSH and ZINCRBY all at once, as separate commands (the seed's majority).
      Mono<String> calc = post("/cart/calculate", ToolLogic.calculateBody(userId, lines), "api-service cart/calculate");
      Mono<Long> count = redis.incr(rateKey);
      Mono<Long> pushed = redis.rpush(ToolLogic.historyKey(userId), ToolLogic.orderEntry(userId, lines, now));
      Mono<Double> scored = redis.zincrby(ToolLogic.POPULAR_KEY, 1, ToolLogic.popularMember(lines));
      return Mono.zip(calc, count, pushed, scored).map(t -> logic.checkoutResult(userId, lines, t.getT1(), t.getT2()));
    });
    return result(done);
  }

  private Mono<String> get(String pathAndQuery, String what) {
    return api.get().uri(pathAndQuery)
        .exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("")
            .map(body -> ToolLogic.requireOk(r.statusCode().value(), body, what)))
        .timeout(TIMEOUT);
  }

  private Mono<String> post(String path, String body, String what) {
    return api.post().uri(path).contentType(MediaType.APPLICATION_JSON).bodyValue(body)
        .exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("")
            .map(answer -> ToolLogic.requireOk(r.statusCode().value(), answer, what)))
        .timeout(TIMEOUT);
  }

  private static Mono<CallToolResult> result(Mono<String> json) {
    return json
        .map(text -> CallToolResult.builder().addTextContent(text).isError(false).build())
        .onErrorResume(e -> Mono.just(CallToolResult.builder().addTextContent(ToolLogic.errorMessage(e)).isError(true).build()));
  }
}
