//! Seed-003 MCP server in Rust: rmcp (Streamable HTTP, stateless, JSON answers) on axum/tokio,
//! Redis through a deadpool-redis pool, the api-service through one reqwest client.
//! Tool semantics follow the seed's contract (search_products, get_user_cart, checkout); every
//! result is one text content item holding the JSON string, failures are `isError: true` results.
//!
//! Environment: MCP_PORT (default 18195), REDIS_URL (default redis://127.0.0.1:16379),
//! API_SERVICE_URL (default http://127.0.0.1:18100), REDIS_POOL_SIZE (default 100, as the seed),
//! HTTP_POOL_IDLE_PER_HOST (default 50, as the seed).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, anyhow};
use deadpool_redis::redis;
use rmcp::{
    ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig},
    schemars, tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

const SERVER_TYPE: &str = "rust";

#[derive(Deserialize, schemars::JsonSchema)]
struct SearchProductsArgs {
    #[schemars(description = "Product category, e.g. Electronics")]
    #[serde(default = "default_category")]
    category: String,
    #[schemars(description = "Minimum price (inclusive)")]
    #[serde(default = "default_min_price")]
    min_price: f64,
    #[schemars(description = "Maximum price (inclusive)")]
    #[serde(default = "default_max_price")]
    max_price: f64,
    #[schemars(description = "Maximum number of products to return")]
    #[serde(default = "default_limit")]
    limit: u32,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct GetUserCartArgs {
    #[schemars(description = "User id, e.g. user-00042")]
    #[serde(default = "default_user_id")]
    user_id: String,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema, Clone)]
struct CheckoutItem {
    product_id: u64,
    quantity: u64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct CheckoutArgs {
    #[schemars(description = "User id, e.g. user-00042")]
    #[serde(default = "default_user_id")]
    user_id: String,
    #[schemars(description = "Items to buy: product_id and quantity")]
    #[serde(default = "default_items")]
    items: Vec<CheckoutItem>,
}

// The seed's defaults when an argument is missing (its k6 script always sends all of them).
fn default_category() -> String {
    "Electronics".into()
}
fn default_min_price() -> f64 {
    50.0
}
fn default_max_price() -> f64 {
    500.0
}
fn default_limit() -> u32 {
    10
}
fn default_user_id() -> String {
    "user-00042".into()
}
fn default_items() -> Vec<CheckoutItem> {
    vec![
        CheckoutItem { product_id: 42, quantity: 2 },
        CheckoutItem { product_id: 1337, quantity: 1 },
    ]
}

#[derive(Clone)]
struct BenchServer {
    http: reqwest::Client,
    redis: deadpool_redis::Pool,
    api_url: Arc<str>,
    tool_router: ToolRouter<BenchServer>,
}

type ToolResult = std::result::Result<CallToolResult, rmcp::ErrorData>;

/// A tool outcome as the MCP result: the JSON document as one text item, or an isError result
/// naming what failed (never a fake success).
fn tool_result(outcome: Result<Value>) -> ToolResult {
    Ok(match outcome {
        Ok(doc) => CallToolResult::success(vec![ContentBlock::text(doc.to_string())]),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!("{e:#}"))]),
    })
}

impl BenchServer {
    async fn redis_conn(&self) -> Result<deadpool_redis::Connection> {
        self.redis.get().await.context("redis pool")
    }

    async fn get_json(&self, url: String) -> Result<Value> {
        let resp = self.http.get(&url).send().await.with_context(|| format!("GET {url}"))?;
        let status = resp.status();
        if !status.is_success() {
            return Err(anyhow!("GET {url}: HTTP {status}"));
        }
        resp.json().await.with_context(|| format!("GET {url}: body"))
    }

    async fn do_search(&self, a: SearchProductsArgs) -> Result<Value> {
        let url = format!(
            "{}/products/search?category={}&min_price={}&max_price={}&limit={}",
            self.api_url,
            urlencode(&a.category),
            a.min_price,
            a.max_price,
            a.limit
        );
        let popular = async {
            let mut conn = self.redis_conn().await?;
            redis::cmd("ZREVRANGE")
                .arg("bench:popular")
                .arg(0)
                .arg(9)
                .query_async::<Vec<String>>(&mut *conn)
                .await
                .context("ZREVRANGE bench:popular")
        };
        let (found, popular) = tokio::try_join!(self.get_json(url), popular)?;

        let top10: Vec<u64> = popular
            .iter()
            .filter_map(|m| m.strip_prefix("product:")?.parse().ok())
            .collect();
        let rank: HashMap<u64, usize> = top10.iter().enumerate().map(|(i, id)| (*id, i + 1)).collect();
        let products: Vec<Value> = found["products"]
            .as_array()
            .ok_or_else(|| anyhow!("api-service search answer has no products array"))?
            .iter()
            .map(|p| {
                let id = p["id"].as_u64().unwrap_or(0);
                json!({
                    "id": id, "sku": p["sku"], "name": p["name"], "price": p["price"],
                    "rating": p["rating"], "popularity_rank": rank.get(&id).copied().unwrap_or(0),
                })
            })
            .collect();
        Ok(json!({
            "category": a.category,
            "total_found": found["total_found"],
            "products": products,
            "top10_popular_ids": top10,
            "server_type": SERVER_TYPE,
        }))
    }

    async fn do_cart(&self, a: GetUserCartArgs) -> Result<Value> {
        // The cart comes first: its first product decides the product lookup.
        let cart: HashMap<String, String> = {
            let mut conn = self.redis_conn().await?;
            redis::cmd("HGETALL")
                .arg(format!("bench:cart:{}", a.user_id))
                .query_async(&mut *conn)
                .await
                .context("HGETALL bench:cart")?
        };
        let items: Value = match cart.get("items") {
            Some(s) => serde_json::from_str(s).context("cart items are not JSON")?,
            None => json!([]),
        };
        let first_product = items[0]["product_id"].as_u64().unwrap_or(1);
        let estimated_total: f64 = cart.get("total").and_then(|s| s.parse().ok()).unwrap_or(0.0);

        let history = async {
            let mut conn = self.redis_conn().await?;
            redis::cmd("LRANGE")
                .arg(format!("bench:history:{}", a.user_id))
                .arg(0)
                .arg(4)
                .query_async::<Vec<String>>(&mut *conn)
                .await
                .context("LRANGE bench:history")
        };
        // The product body is fetched for its I/O and discarded, as in the seed.
        let product = self.get_json(format!("{}/products/{}", self.api_url, first_product));
        let (_, history) = tokio::try_join!(product, history)?;

        let recent_history: Vec<Value> = history
            .iter()
            .map(|e| serde_json::from_str(e).unwrap_or_else(|_| json!({ "raw": e })))
            .collect();
        let item_count = items.as_array().map_or(0, Vec::len);
        Ok(json!({
            "user_id": a.user_id,
            "cart": { "items": items, "item_count": item_count, "estimated_total": estimated_total },
            "recent_history": recent_history,
            "server_type": SERVER_TYPE,
        }))
    }

    async fn do_checkout(&self, a: CheckoutArgs) -> Result<Value> {
        let first = a.items.first().ok_or_else(|| anyhow!("items is empty: give at least one {{product_id, quantity}}"))?;
        let user_num: u64 = a.user_id.rsplit('-').next().and_then(|s| s.parse().ok()).unwrap_or(42);
        let rate_key = format!("bench:ratelimit:user-{:05}", user_num % 100);
        let history_key = format!("bench:history:{}", a.user_id);
        let popular_member = format!("product:{}", first.product_id);
        let ts = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let order_entry = json!({ "order_id": format!("ORD-{}-{ts}", a.user_id), "items": a.items, "ts": ts }).to_string();

        let calc_url = format!("{}/cart/calculate", self.api_url);
        let calculate = async {
            let resp = self
                .http
                .post(&calc_url)
                .json(&json!({ "user_id": a.user_id, "items": a.items }))
                .send()
                .await
                .with_context(|| format!("POST {calc_url}"))?;
            let status = resp.status();
            if !status.is_success() {
                return Err(anyhow!("POST {calc_url}: HTTP {status}"));
            }
            resp.json::<Value>().await.context("POST /cart/calculate: body")
        };
        // Three separate Redis writes in parallel with the POST (the seed's majority; its Rust server
        // pipelined them on one connection instead).
        let incr = async {
            let mut conn = self.redis_conn().await?;
            redis::cmd("INCR").arg(&rate_key).query_async::<i64>(&mut *conn).await.context("INCR bench:ratelimit")
        };
        let rpush = async {
            let mut conn = self.redis_conn().await?;
            redis::cmd("RPUSH")
                .arg(&history_key)
                .arg(&order_entry)
                .query_async::<i64>(&mut *conn)
                .await
                .context("RPUSH bench:history")
        };
        let zincr = async {
            let mut conn = self.redis_conn().await?;
            redis::cmd("ZINCRBY")
                .arg("bench:popular")
                .arg(1)
                .arg(&popular_member)
                .query_async::<f64>(&mut *conn)
                .await
                .context("ZINCRBY bench:popular")
        };
        let (calc, rate_count, _, _) = tokio::try_join!(calculate, incr, rpush, zincr)?;

        Ok(json!({
            "order_id": calc["order_id"],
            "user_id": a.user_id,
            "total": calc["total"].as_f64().ok_or_else(|| anyhow!("api-service cart answer has no total"))?,
            "items_count": a.items.len(),
            "rate_limit_count": rate_count,
            "status": "confirmed",
            "server_type": SERVER_TYPE,
        }))
    }
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tool_router]
impl BenchServer {
    #[tool(description = "Search products by category and price range, merged with popularity data")]
    async fn search_products(&self, Parameters(a): Parameters<SearchProductsArgs>) -> ToolResult {
        tool_result(self.do_search(a).await)
    }

    #[tool(description = "Get user cart details with recent order history")]
    async fn get_user_cart(&self, Parameters(a): Parameters<GetUserCartArgs>) -> ToolResult {
        tool_result(self.do_cart(a).await)
    }

    #[tool(description = "Process checkout: calculate total, update rate limit, record history")]
    async fn checkout(&self, Parameters(a): Parameters<CheckoutArgs>) -> ToolResult {
        tool_result(self.do_checkout(a).await)
    }
}

// The router built once per server (the field), not rebuilt per call (the macro's default `Self::tool_router()`).
#[tool_handler(router = self.tool_router)]
impl ServerHandler for BenchServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("samebox-mcp-rust", env!("CARGO_PKG_VERSION")))
    }
}

fn env_or(key: &str, default: &str) -> String {
    std::env::var(key).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| default.to_string())
}

fn env_usize(key: &str, default: usize) -> Result<usize> {
    match std::env::var(key) {
        Ok(v) if !v.is_empty() => v.parse().map_err(|_| anyhow!("{key}={v} is not a whole number >= 1")),
        _ => Ok(default),
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    let port: u16 = env_or("MCP_PORT", "18195").parse().map_err(|_| anyhow!("MCP_PORT must be a port number 1-65535"))?;
    let redis_url = env_or("REDIS_URL", "redis://127.0.0.1:16379");
    let api_url = env_or("API_SERVICE_URL", "http://127.0.0.1:18100");
    let redis_pool_size = env_usize("REDIS_POOL_SIZE", 100)?;
    let http_idle_per_host = env_usize("HTTP_POOL_IDLE_PER_HOST", 50)?;

    let mut redis_cfg = deadpool_redis::Config::from_url(redis_url.clone());
    redis_cfg.pool = Some(deadpool_redis::PoolConfig::new(redis_pool_size));
    let redis = redis_cfg
        .create_pool(Some(deadpool_redis::Runtime::Tokio1))
        .with_context(|| format!("REDIS_URL={redis_url}"))?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(http_idle_per_host)
        .tcp_nodelay(true)
        .timeout(std::time::Duration::from_secs(10))
        .build()?;
    let server = BenchServer { http, redis, api_url: api_url.trim_end_matches('/').into(), tool_router: BenchServer::tool_router() };

    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let service: StreamableHttpService<BenchServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.clone()), Default::default(), config);
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { axum::Json(json!({ "status": "ok", "server_type": SERVER_TYPE })) }))
        .nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.with_context(|| format!("bind 127.0.0.1:{port}"))?;
    eprintln!("mcp-rust listening on http://127.0.0.1:{port}/mcp (redis {redis_url}, api {api_url}, redis pool {redis_pool_size})");
    axum::serve(listener, app).await?;
    Ok(())
}
