package samebox.mcp.jvm;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The three tools' I/O with CompletableFutures: Lettuce async commands on one shared connection
 * (Lettuce multiplexes commands from every thread over it) and the JDK HttpClient (HTTP/1.1,
 * keep-alive pool). Independent I/O is started together and joined (the seed's Java MVC/VT servers
 * ran it one after another; every samebox server runs it in parallel). Used by the blocking servers
 * (Spring WebMVC on platform or virtual threads, Micronaut), which wait for the joined future.
 */
public final class FutureBackend implements AutoCloseable {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final ToolLogic logic;
  private final String api;
  private final RedisClient redisClient;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisAsyncCommands<String, String> redis;
  private final HttpClient http;

  public FutureBackend(BenchSettings settings) {
    this.logic = new ToolLogic(settings.serverType());
    this.api = settings.apiServiceUrl();
    this.redisClient = redisClient(settings);
    this.connection = redisClient.connect();
    this.redis = connection.async();
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(TIMEOUT)
        .build();
  }

  /** A Lettuce client for REDIS_URL with the tools' 10 s command timeout (shared with WebFlux). */
  public static RedisClient redisClient(BenchSettings settings) {
    RedisURI uri = RedisURI.create(settings.redisUrl());
    uri.setTimeout(TIMEOUT);
    return RedisClient.create(uri);
  }

  public ToolLogic logic() {
    return logic;
  }

  public CompletableFuture<String> searchProducts(ToolLogic.Search a) {
    CompletableFuture<String> found = get(ToolLogic.searchPath(a), "api-service search");
    CompletableFuture<List<String>> popular = redis.zrevrange(ToolLogic.POPULAR_KEY, 0, 9).toCompletableFuture();
    return found.thenCombine(popular, (body, top) -> logic.searchResult(a, body, ToolLogic.orEmpty(top)));
  }

  public CompletableFuture<String> getUserCart(String userId) {
    // The cart comes first: its first item decides which product is looked up.
    return redis.hgetall(ToolLogic.cartKey(userId)).toCompletableFuture().thenCompose(cart -> {
      Map<String, String> c = cart == null ? Map.of() : cart;
      // The product body is fetched for its I/O and discarded, as in the seed.
      CompletableFuture<String> product = get("/products/" + ToolLogic.firstProductId(c), "api-service product");
      CompletableFuture<List<String>> history = redis.lrange(ToolLogic.historyKey(userId), 0, 4).toCompletableFuture();
      return product.thenCombine(history, (ignored, h) -> logic.cartResult(userId, c, ToolLogic.orEmpty(h)));
    });
  }

  public CompletableFuture<String> checkout(String userId, List<CheckoutItem> items) {
    String rateKey;
    try {
      rateKey = ToolLogic.rateLimitKey(userId);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    long now = System.currentTimeMillis() / 1000;
    // POST, INCR, RPUSH and ZINCRBY all at once, as separate commands (the seed's majority).
    CompletableFuture<String> calc = post("/cart/calculate", ToolLogic.calculateBody(userId, items), "api-service cart/calculate");
    CompletableFuture<Long> count = redis.incr(rateKey).toCompletableFuture();
    CompletableFuture<Long> pushed = redis.rpush(ToolLogic.historyKey(userId), ToolLogic.orderEntry(userId, items, now)).toCompletableFuture();
    CompletableFuture<Double> scored = redis.zincrby(ToolLogic.POPULAR_KEY, 1, ToolLogic.popularMember(items)).toCompletableFuture();
    return CompletableFuture.allOf(calc, count, pushed, scored)
        .thenApply(ignored -> logic.checkoutResult(userId, items, calc.join(), count.join()));
  }

  private CompletableFuture<String> get(String path, String what) {
    HttpRequest req = HttpRequest.newBuilder(URI.create(api + path)).timeout(TIMEOUT).GET().build();
    return http.sendAsync(req, HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> ToolLogic.requireOk(r.statusCode(), r.body(), what));
  }

  private CompletableFuture<String> post(String path, String body, String what) {
    HttpRequest req = HttpRequest.newBuilder(URI.create(api + path)).timeout(TIMEOUT)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    return http.sendAsync(req, HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> ToolLogic.requireOk(r.statusCode(), r.body(), what));
  }

  @Override
  public void close() {
    connection.close();
    redisClient.shutdown();
    http.close();
  }
}
