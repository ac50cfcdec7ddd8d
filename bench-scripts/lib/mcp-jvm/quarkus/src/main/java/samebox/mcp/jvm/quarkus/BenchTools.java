package samebox.mcp.jvm.quarkus;

import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.runtime.Startup;
import io.quarkus.redis.datasource.hash.ReactiveHashCommands;
import io.quarkus.redis.datasource.list.ReactiveListCommands;
import io.quarkus.redis.datasource.sortedset.ReactiveSortedSetCommands;
import io.quarkus.redis.datasource.sortedset.ZRangeArgs;
import io.quarkus.redis.datasource.value.ReactiveValueCommands;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import samebox.mcp.jvm.BenchSettings;
import samebox.mcp.jvm.CheckoutItem;
import samebox.mcp.jvm.ToolLogic;

/**
 * The three tools as Quarkus MCP tools returning Uni: the Quarkus Redis client (pooled, max 100
 * connections, 1000 waiting, as the seed's FINDINGS) and the REST client, independent I/O combined
 * in parallel (Uni.combine, as the seed). Result shapes come from the shared ToolLogic.
 */
@Singleton
@Startup // created at start, so a bad REDIS_URL/API_SERVICE_URL/MCP_SERVER_TYPE stops the server then
public class BenchTools {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final ToolLogic logic;
  private final ApiService api;
  private final ReactiveSortedSetCommands<String, String> zsets;
  private final ReactiveHashCommands<String, String, String> hashes;
  private final ReactiveListCommands<String, String> lists;
  private final ReactiveValueCommands<String, String> values;

  public BenchTools(ReactiveRedisDataSource redis, @RestClient ApiService api) {
    this.logic = new ToolLogic(BenchSettings.fromEnvironment("quarkus").serverType());
    this.api = api;
    this.zsets = redis.sortedSet(String.class);
    this.hashes = redis.hash(String.class);
    this.lists = redis.list(String.class);
    this.values = redis.value(String.class);
  }

  @Tool(name = "search_products", description = ToolLogic.SEARCH_DESCRIPTION)
  public Uni<ToolResponse> searchProducts(
      @ToolArg(name = "category", description = "Product category (default Electronics)", required = false) String category,
      @ToolArg(name = "min_price", description = "Minimum price (default 50)", required = false) Double minPrice,
      @ToolArg(name = "max_price", description = "Maximum price (default 500)", required = false) Double maxPrice,
      @ToolArg(name = "limit", description = "Maximum number of products to return (default 10)", required = false) Integer limit) {
    ToolLogic.Search a = ToolLogic.search(category, minPrice, maxPrice, limit);
    Uni<String> found = api.search(a.category(), ToolLogic.number(a.minPrice()), ToolLogic.number(a.maxPrice()), a.limit());
    Uni<List<String>> popular = zsets.zrange(ToolLogic.POPULAR_KEY, 0, 9, new ZRangeArgs().rev());
    return result(Uni.combine().all().unis(found, popular).asTuple()
        .map(t -> logic.searchResult(a, t.getItem1(), t.getItem2())));
  }

  @Tool(name = "get_user_cart", description = ToolLogic.CART_DESCRIPTION)
  public Uni<ToolResponse> getUserCart(
      @ToolArg(name = "user_id", description = "User id, e.g. user-00042", required = false) String userIdArg) {
    String userId = ToolLogic.userId(userIdArg);
    // The cart comes first: its first item decides which product is looked up.
    Uni<String> cart = hashes.hgetall(ToolLogic.cartKey(userId)).flatMap(found -> {
      Map<String, String> c = found == null ? Map.of() : found;
      // The product body is fetched for its I/O and discarded, as in the seed.
      Uni<String> product = api.product(ToolLogic.firstProductId(c));
      Uni<List<String>> history = lists.lrange(ToolLogic.historyKey(userId), 0, 4);
      return Uni.combine().all().unis(product, history).asTuple()
          .map(t -> logic.cartResult(userId, c, t.getItem2()));
    });
    return result(cart);
  }

  @Tool(name = "checkout", description = ToolLogic.CHECKOUT_DESCRIPTION)
  public Uni<ToolResponse> checkout(
      @ToolArg(name = "user_id", description = "User id, e.g. user-00042", required = false) String userIdArg,
      @ToolArg(name = "items", description = "Items to buy: product_id and quantity", required = false) List<CheckoutItem> items) {
    String userId = ToolLogic.userId(userIdArg);
    List<CheckoutItem> lines = ToolLogic.items(items);
    Uni<String> done = Uni.createFrom().deferred(() -> {
      String rateKey = ToolLogic.rateLimitKey(userId);
      long now = System.currentTimeMillis() / 1000;
      // POST, INCR, RPUSH and ZINCRBY all at once, as separate commands (the seed's majority).
      Uni<String> calc = api.calculate(ToolLogic.calculateBody(userId, lines));
      Uni<Long> count = values.incr(rateKey);
      Uni<Long> pushed = lists.rpush(ToolLogic.historyKey(userId), ToolLogic.orderEntry(userId, lines, now));
      Uni<Double> scored = zsets.zincrby(ToolLogic.POPULAR_KEY, 1, ToolLogic.popularMember(lines));
      return Uni.combine().all().unis(calc, count, pushed, scored).asTuple()
          .map(t -> logic.checkoutResult(userId, lines, t.getItem1(), t.getItem2()));
    });
    return result(done);
  }

  private static Uni<ToolResponse> result(Uni<String> json) {
    return json
        .ifNoItem().after(TIMEOUT).fail()
        .map(text -> ToolResponse.success(new TextContent(text)))
        .onFailure().recoverWithItem(e -> ToolResponse.error(ToolLogic.errorMessage(e)));
  }
}
