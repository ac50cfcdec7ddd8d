package samebox.mcp.jvm.spring;

import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.stereotype.Component;
import samebox.mcp.jvm.CheckoutItem;
import samebox.mcp.jvm.FutureBackend;
import samebox.mcp.jvm.ToolLogic;

/**
 * The three tools as SYNC Spring AI MCP tools: the request thread (a Tomcat platform thread, or a
 * virtual thread for java-vt) starts the tool's I/O in parallel and waits for it. Parameter names are
 * the seed's argument names (snake case).
 */
@Component
public class BenchTools {

  private final FutureBackend backend;

  public BenchTools(FutureBackend backend) {
    this.backend = backend;
  }

  @McpTool(name = "search_products", description = ToolLogic.SEARCH_DESCRIPTION)
  public CallToolResult searchProducts(
      @McpToolParam(description = "Product category (default Electronics)", required = false) String category,
      @McpToolParam(description = "Minimum price (default 50)", required = false) Double min_price,
      @McpToolParam(description = "Maximum price (default 500)", required = false) Double max_price,
      @McpToolParam(description = "Maximum number of products to return (default 10)", required = false) Integer limit) {
    return await(backend.searchProducts(ToolLogic.search(category, min_price, max_price, limit)));
  }

  @McpTool(name = "get_user_cart", description = ToolLogic.CART_DESCRIPTION)
  public CallToolResult getUserCart(
      @McpToolParam(description = "User id, e.g. user-00042", required = false) String user_id) {
    return await(backend.getUserCart(ToolLogic.userId(user_id)));
  }

  @McpTool(name = "checkout", description = ToolLogic.CHECKOUT_DESCRIPTION)
  public CallToolResult checkout(
      @McpToolParam(description = "User id, e.g. user-00042", required = false) String user_id,
      @McpToolParam(description = "Items to buy: product_id and quantity", required = false) List<CheckoutItem> items) {
    return await(backend.checkout(ToolLogic.userId(user_id), ToolLogic.items(items)));
  }

  private static CallToolResult await(CompletableFuture<String> result) {
    try {
      return CallToolResult.builder().addTextContent(result.join()).isError(false).build();
    } catch (RuntimeException e) {
      return CallToolResult.builder().addTextContent(ToolLogic.errorMessage(e)).isError(true).build();
    }
  }
}
