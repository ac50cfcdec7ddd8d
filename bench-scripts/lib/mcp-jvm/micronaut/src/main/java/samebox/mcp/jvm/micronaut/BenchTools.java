package samebox.mcp.jvm.micronaut;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.mcp.annotations.Tool;
import io.micronaut.mcp.annotations.ToolArg;
import io.micronaut.mcp.server.exceptions.McpErrorExceptionMapper;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.annotation.Nullable;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import samebox.mcp.jvm.BenchSettings;
import samebox.mcp.jvm.CheckoutItem;
import samebox.mcp.jvm.FutureBackend;
import samebox.mcp.jvm.ToolLogic;

/**
 * The three tools as Micronaut MCP tools on the shared FutureBackend (Lettuce async + JDK
 * HttpClient, independent I/O in parallel). micronaut-mcp 0.0.19 runs @Tool methods synchronously
 * (the MCP SDK's stateless sync server, off the Netty event loop), so each waits for its joined
 * future. It turns a String result into one text content item; a thrown exception becomes a
 * JSON-RPC error (this SDK version has no way for a @Tool method to return an isError result).
 * Prices and limit are primitives, as the seed's Micronaut server (boxed types get an "object"
 * input schema here); 0 means the seed's default.
 */
@Singleton
public class BenchTools {

  private final FutureBackend backend;

  public BenchTools(FutureBackend backend) {
    this.backend = backend;
  }

  @Tool(name = "search_products", description = ToolLogic.SEARCH_DESCRIPTION)
  public String searchProducts(
      @ToolArg(name = "category", description = "Product category (default Electronics)") @Nullable String category,
      @ToolArg(name = "min_price", description = "Minimum price (0: default 50)") double minPrice,
      @ToolArg(name = "max_price", description = "Maximum price (0: default 500)") double maxPrice,
      @ToolArg(name = "limit", description = "Maximum number of products to return (0: default 10)") int limit) {
    return await(backend.searchProducts(ToolLogic.search(category, minPrice, maxPrice, limit)));
  }

  @Tool(name = "get_user_cart", description = ToolLogic.CART_DESCRIPTION)
  public String getUserCart(
      @ToolArg(name = "user_id", description = "User id, e.g. user-00042") @Nullable String userId) {
    return await(backend.getUserCart(ToolLogic.userId(userId)));
  }

  @Tool(name = "checkout", description = ToolLogic.CHECKOUT_DESCRIPTION)
  public String checkout(
      @ToolArg(name = "user_id", description = "User id, e.g. user-00042") @Nullable String userId,
      @ToolArg(name = "items", description = "Items to buy: product_id and quantity") @Nullable List<Map<String, Object>> items) {
    // micronaut-mcp binds the list without converting its elements: they arrive as JSON objects.
    List<CheckoutItem> lines;
    try {
      lines = ToolLogic.itemsFromJson(items);
    } catch (RuntimeException e) {
      throw new ToolLogic.ToolException(ToolLogic.errorMessage(e));
    }
    return await(backend.checkout(ToolLogic.userId(userId), lines));
  }

  private static String await(CompletableFuture<String> result) {
    try {
      return result.join();
    } catch (RuntimeException e) {
      throw new ToolLogic.ToolException(ToolLogic.errorMessage(e));
    }
  }

  /**
   * A failed tool as a JSON-RPC error carrying our message (without a mapper micronaut-mcp builds an
   * error with no message, which fails as "message must not be empty").
   */
  @Singleton
  static class ToolFailureMapper implements McpErrorExceptionMapper<ToolLogic.ToolException> {
    @Override
    public boolean canMap(Class<? extends Throwable> type) {
      return ToolLogic.ToolException.class.isAssignableFrom(type);
    }

    @Override
    public McpError map(ToolLogic.ToolException e) {
      return McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR).message(e.getMessage()).build();
    }
  }

  /**
   * The shared I/O backend as a bean, closed with the context; created at startup (@Context) so a bad
   * REDIS_URL or API_SERVICE_URL stops the server at start, not at its first tool call.
   */
  @Factory
  static class Backend {
    @Context
    @Bean(preDestroy = "close")
    FutureBackend futureBackend() {
      return new FutureBackend(BenchSettings.fromEnvironment("micronaut"));
    }
  }
}
