package samebox.mcp.jvm;

import java.net.URI;

/**
 * Where the dependencies are and what this server calls itself, from the environment (the system's
 * start verb sets them): REDIS_URL, API_SERVICE_URL, MCP_SERVER_TYPE. A bad value stops the server
 * at startup with a message naming the variable and what is valid.
 */
public record BenchSettings(String redisUrl, String apiServiceUrl, String serverType) {

  public static final String DEFAULT_REDIS_URL = "redis://127.0.0.1:16379";
  public static final String DEFAULT_API_SERVICE_URL = "http://127.0.0.1:18100";

  public static BenchSettings fromEnvironment(String defaultServerType) {
    String redis = env("REDIS_URL", DEFAULT_REDIS_URL);
    String api = env("API_SERVICE_URL", DEFAULT_API_SERVICE_URL);
    String type = env("MCP_SERVER_TYPE", defaultServerType);
    requireUrl("REDIS_URL", redis, "redis");
    requireUrl("API_SERVICE_URL", api, "http");
    if (!type.matches("[a-z0-9-]+")) {
      throw new IllegalArgumentException("MCP_SERVER_TYPE='" + type + "' is not valid (valid: lower-case letters, digits and '-', e.g. java-vt)");
    }
    return new BenchSettings(redis, api.replaceAll("/+$", ""), type);
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v.trim();
  }

  private static void requireUrl(String name, String value, String scheme) {
    try {
      URI u = URI.create(value);
      if (!scheme.equals(u.getScheme()) || u.getHost() == null) {
        throw new IllegalArgumentException("scheme/host");
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + "='" + value + "' is not valid (valid: " + scheme + "://host:port)");
    }
  }
}
