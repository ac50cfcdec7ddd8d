package samebox.mcp.jvm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The three tools of seed 003 without their I/O: Redis keys, the seed's argument defaults, request
 * bodies and the result JSON (one text content item per result). Every JVM server calls these, so
 * the result shapes cannot drift between frameworks. The I/O itself (which calls run in parallel)
 * lives with each framework.
 */
public final class ToolLogic {

  public static final String POPULAR_KEY = "bench:popular";
  public static final String SEARCH_DESCRIPTION = "Search products by category and price range, merged with popularity data";
  public static final String CART_DESCRIPTION = "Get user cart details with recent order history";
  public static final String CHECKOUT_DESCRIPTION = "Process checkout: calculate total, update rate limit, record history";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String serverType;

  public ToolLogic(String serverType) {
    this.serverType = serverType;
  }

  public String serverType() {
    return serverType;
  }

  // ---- search_products -----------------------------------------------------------------------

  /** Arguments after the seed's defaults (its k6 script always sends all four). */
  public record Search(String category, double minPrice, double maxPrice, int limit) {}

  public static Search search(String category, Double minPrice, Double maxPrice, Integer limit) {
    return new Search(
        category == null || category.isEmpty() ? "Electronics" : category,
        minPrice == null || minPrice == 0 ? 50.0 : minPrice,
        maxPrice == null || maxPrice == 0 ? 500.0 : maxPrice,
        limit == null || limit == 0 ? 10 : limit);
  }

  /** Path and query of the api-service search for these arguments. */
  public static String searchPath(Search a) {
    return "/products/search?category=" + URLEncoder.encode(a.category(), StandardCharsets.UTF_8)
        + "&min_price=" + number(a.minPrice()) + "&max_price=" + number(a.maxPrice()) + "&limit=" + a.limit();
  }

  /** The result of search_products from the api-service answer and ZREVRANGE bench:popular 0 9. */
  public String searchResult(Search a, String apiBody, List<String> popularMembers) {
    JsonNode found = parse(apiBody, "api-service search");
    JsonNode products = found.get("products");
    JsonNode total = found.get("total_found");
    if (products == null || !products.isArray() || total == null || !total.isNumber()) {
      throw new ToolException("api-service search answer has no products array or total_found: " + abbreviate(apiBody));
    }
    Map<Long, Integer> rankById = new HashMap<>();
    ArrayNode top10 = JSON.createArrayNode();
    int rank = 0;
    for (String member : popularMembers) {
      rank++;
      int colon = member.indexOf(':');
      if (colon < 0) continue;
      try {
        long id = Long.parseLong(member.substring(colon + 1));
        top10.add(id);
        rankById.put(id, rank);
      } catch (NumberFormatException ignored) {
        // a member that is not product:<id> has no id to report, as in the seed
      }
    }
    ArrayNode out = JSON.createArrayNode();
    for (JsonNode p : products) {
      long id = p.path("id").asLong();
      ObjectNode o = out.addObject();
      o.put("id", id);
      o.set("sku", p.get("sku"));
      o.set("name", p.get("name"));
      o.set("price", p.get("price"));
      o.set("rating", p.get("rating"));
      o.put("popularity_rank", rankById.getOrDefault(id, 0));
    }
    ObjectNode r = JSON.createObjectNode();
    r.put("category", a.category());
    r.set("total_found", total);
    r.set("products", out);
    r.set("top10_popular_ids", top10);
    r.put("server_type", serverType);
    return write(r);
  }

  // ---- get_user_cart -------------------------------------------------------------------------

  public static String userId(String userId) {
    return userId == null || userId.isEmpty() ? "user-00042" : userId;
  }

  public static String cartKey(String userId) {
    return "bench:cart:" + userId;
  }

  public static String historyKey(String userId) {
    return "bench:history:" + userId;
  }

  /** The product the cart tool looks up: the cart's first item, else product 1 (as the seed). */
  public static long firstProductId(Map<String, String> cart) {
    JsonNode items = cartItems(cart);
    if (items.size() > 0 && items.get(0).path("product_id").isNumber()) {
      return items.get(0).path("product_id").asLong();
    }
    return 1;
  }

  /** The result of get_user_cart from HGETALL bench:cart:{uid} and LRANGE bench:history:{uid} 0 4. */
  public String cartResult(String userId, Map<String, String> cart, List<String> history) {
    JsonNode items = cartItems(cart);
    ArrayNode recent = JSON.createArrayNode();
    for (String entry : history) {
      try {
        recent.add(JSON.readTree(entry));
      } catch (JsonProcessingException ignored) {
        // an entry that is not JSON is left out, as in the seed
      }
    }
    double estimated = 0;
    String total = cart.get("total");
    if (total != null) {
      try {
        estimated = Double.parseDouble(total);
      } catch (NumberFormatException ignored) {
        // the seed reports 0 for an unparseable total
      }
    }
    ObjectNode r = JSON.createObjectNode();
    r.put("user_id", userId);
    ObjectNode c = r.putObject("cart");
    c.set("items", items);
    c.put("item_count", items.size());
    c.put("estimated_total", estimated);
    r.set("recent_history", recent);
    r.put("server_type", serverType);
    return write(r);
  }

  private static JsonNode cartItems(Map<String, String> cart) {
    String items = cart.get("items");
    if (items == null) return JSON.createArrayNode();
    try {
      JsonNode n = JSON.readTree(items);
      return n.isArray() ? n : JSON.createArrayNode();
    } catch (JsonProcessingException e) {
      return JSON.createArrayNode();
    }
  }

  // ---- checkout ------------------------------------------------------------------------------

  public static List<CheckoutItem> items(List<CheckoutItem> items) {
    if (items == null || items.isEmpty()) {
      return List.of(new CheckoutItem(42, 2), new CheckoutItem(1337, 1));
    }
    return items;
  }

  /**
   * Checkout lines from a list whose elements are CheckoutItems or JSON objects (maps) with
   * product_id and quantity: SDKs that bind a generic list argument without converting its elements
   * (micronaut-mcp 0.0.19) hand over maps.
   */
  public static List<CheckoutItem> itemsFromJson(List<?> raw) {
    if (raw == null) return items(null);
    List<CheckoutItem> out = new ArrayList<>(raw.size());
    for (Object o : raw) {
      if (o instanceof CheckoutItem c) {
        out.add(c);
      } else if (o instanceof Map<?, ?> m && m.get("product_id") instanceof Number p && m.get("quantity") instanceof Number q) {
        out.add(new CheckoutItem(p.intValue(), q.intValue()));
      } else {
        throw new ToolException("items: each item must be {\"product_id\": <integer>, \"quantity\": <integer>}, got " + o);
      }
    }
    return items(out);
  }

  /** bench:ratelimit:user-{N % 100, 5 digits}, N the number after the user id's last '-'. */
  public static String rateLimitKey(String userId) {
    int dash = userId.lastIndexOf('-');
    long n;
    try {
      n = Long.parseLong(userId.substring(dash + 1));
    } catch (NumberFormatException e) {
      throw new ToolException("user_id '" + userId + "' does not end in a number (valid: user-NNNNN, e.g. user-00042)");
    }
    return String.format("bench:ratelimit:user-%05d", n % 100);
  }

  public static String popularMember(List<CheckoutItem> items) {
    return "product:" + items.get(0).product_id();
  }

  /** The body of POST /cart/calculate. */
  public static String calculateBody(String userId, List<CheckoutItem> items) {
    ObjectNode b = JSON.createObjectNode();
    b.put("user_id", userId);
    b.set("items", itemsNode(items));
    return write(b);
  }

  /** The order entry RPUSHed onto the user's history. */
  public static String orderEntry(String userId, List<CheckoutItem> items, long epochSeconds) {
    ObjectNode o = JSON.createObjectNode();
    o.put("order_id", "ORD-" + userId + "-" + epochSeconds);
    o.set("items", itemsNode(items));
    o.put("ts", epochSeconds);
    return write(o);
  }

  /** The result of checkout from the api-service answer and the INCR of the rate-limit key. */
  public String checkoutResult(String userId, List<CheckoutItem> items, String calcBody, long rateLimitCount) {
    JsonNode calc = parse(calcBody, "api-service cart/calculate");
    JsonNode total = calc.get("total");
    JsonNode orderId = calc.get("order_id");
    if (total == null || !total.isNumber() || orderId == null || !orderId.isTextual()) {
      throw new ToolException("api-service cart/calculate answer has no total or order_id: " + abbreviate(calcBody));
    }
    ObjectNode r = JSON.createObjectNode();
    r.set("order_id", orderId);
    r.put("user_id", userId);
    r.set("total", total);
    r.put("items_count", items.size());
    r.put("rate_limit_count", rateLimitCount);
    r.put("status", "confirmed");
    r.put("server_type", serverType);
    return write(r);
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** One line for an isError result: what failed and why. */
  public static String errorMessage(Throwable t) {
    Throwable c = t;
    while ((c instanceof java.util.concurrent.CompletionException || c instanceof java.util.concurrent.ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    String m = c.getMessage();
    return c instanceof ToolException ? m : c.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }

  /** Fails unless the api-service answered 200. */
  public static String requireOk(int status, String body, String what) {
    if (status != 200) {
      throw new ToolException(what + " answered HTTP " + status + ": " + abbreviate(body));
    }
    return body;
  }

  private static ArrayNode itemsNode(List<CheckoutItem> items) {
    ArrayNode a = JSON.createArrayNode();
    for (CheckoutItem i : items) {
      a.addObject().put("product_id", i.product_id()).put("quantity", i.quantity());
    }
    return a;
  }

  private static JsonNode parse(String body, String what) {
    try {
      return JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new ToolException(what + " answer is not JSON: " + abbreviate(body));
    }
  }

  private static String write(JsonNode n) {
    try {
      return JSON.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Numbers in the query as the seed's Go server wrote them (shortest form, 50 not 50.0). */
  public static String number(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }

  private static String abbreviate(String s) {
    if (s == null) return "(no body)";
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }

  /** A tool failure with a message meant for the isError result. */
  public static final class ToolException extends RuntimeException {
    public ToolException(String message) {
      super(message);
    }
  }

  /** Collects a list from a Lettuce/driver answer that may be null. */
  public static <T> List<T> orEmpty(List<T> l) {
    return l == null ? new ArrayList<>() : l;
  }
}
