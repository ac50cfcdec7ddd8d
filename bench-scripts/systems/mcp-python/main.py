"""Seed-003 MCP server in Python: the official `mcp` SDK's FastMCP (Streamable HTTP, stateless,
JSON answers) served by uvicorn (workers + uvloop from the start verb), Redis through redis.asyncio,
the api-service through one httpx.AsyncClient per worker.

Every tool result is one text item holding the JSON string; a failed I/O raises, and FastMCP answers
isError: true naming the failure. Environment: REDIS_URL (default redis://127.0.0.1:16379),
API_SERVICE_URL (default http://127.0.0.1:18100), SERVER_TYPE (default python).
"""

import asyncio
import json
import os
import time

import httpx
import redis.asyncio as aioredis
from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel, Field

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:16379"
API_SERVICE_URL = (os.environ.get("API_SERVICE_URL") or "http://127.0.0.1:18100").rstrip("/")
SERVER_TYPE = os.environ.get("SERVER_TYPE") or "python"

# WARNING: FastMCP logs every request at INFO, which would cost CPU and fill the log under load.
mcp = FastMCP("samebox-mcp-python", stateless_http=True, json_response=True, log_level="WARNING")


class Backends:
    """One Redis pool and one HTTP client per worker process, made on first use inside the worker's
    event loop (uvicorn imports this module in every worker)."""

    redis: aioredis.Redis | None = None
    http: httpx.AsyncClient | None = None

    @classmethod
    def get(cls) -> tuple[aioredis.Redis, httpx.AsyncClient]:
        if cls.redis is None:
            cls.redis = aioredis.from_url(REDIS_URL, decode_responses=True)
            # httpx defaults (100 connections, 20 keep-alive) as the seed.
            cls.http = httpx.AsyncClient(base_url=API_SERVICE_URL, timeout=10.0)
        return cls.redis, cls.http


async def api_json(method: str, path: str, **kwargs) -> dict:
    _, http = Backends.get()
    resp = await http.request(method, path, **kwargs)
    if resp.status_code // 100 != 2:
        raise RuntimeError(f"{method} {path}: HTTP {resp.status_code}")
    return resp.json()


class CheckoutItem(BaseModel):
    product_id: int
    quantity: int


def dumps(doc: dict) -> str:
    return json.dumps(doc, separators=(",", ":"))


# structured_output=False: the result is the one text item, as every other server (no extra
# structuredContent copy of the document).
@mcp.tool(description="Search products by category and price range, merged with popularity data", structured_output=False)
async def search_products(
    category: str = Field("Electronics", description="product category, e.g. Electronics"),
    min_price: float = Field(50.0, description="minimum price (inclusive)"),
    max_price: float = Field(500.0, description="maximum price (inclusive)"),
    limit: int = Field(10, description="maximum number of products to return"),
) -> str:
    redis, _ = Backends.get()
    params = {"category": category, "min_price": min_price, "max_price": max_price, "limit": limit}
    # ZREVRANGE as every other server (the seed's Python used ZREVRANGEBYSCORE +inf -inf LIMIT 0 10).
    found, popular = await asyncio.gather(
        api_json("GET", "/products/search", params=params),
        redis.zrevrange("bench:popular", 0, 9),
    )
    top10 = [int(m.split(":", 1)[1]) for m in popular]
    rank = {pid: i + 1 for i, pid in enumerate(top10)}
    if not isinstance(found.get("products"), list):
        raise RuntimeError("api-service search answer has no products array")
    products = [
        {"id": p["id"], "sku": p["sku"], "name": p["name"], "price": p["price"], "rating": p["rating"],
         "popularity_rank": rank.get(p["id"], 0)}
        for p in found["products"]
    ]
    return dumps({"category": category, "total_found": found.get("total_found"), "products": products,
                  "top10_popular_ids": top10, "server_type": SERVER_TYPE})


@mcp.tool(description="Get user cart details with recent order history", structured_output=False)
async def get_user_cart(user_id: str = Field("user-00042", description="user id, e.g. user-00042")) -> str:
    redis, _ = Backends.get()
    # The cart comes first: its first product decides the product lookup.
    cart = await redis.hgetall(f"bench:cart:{user_id}")
    items = json.loads(cart["items"]) if "items" in cart else []
    first_product = items[0].get("product_id", 1) if items else 1
    # The product body is fetched for its I/O and discarded, as in the seed.
    _, history = await asyncio.gather(
        api_json("GET", f"/products/{first_product}"),
        redis.lrange(f"bench:history:{user_id}", 0, 4),
    )
    recent = []
    for entry in history:
        try:
            recent.append(json.loads(entry))
        except ValueError:
            recent.append({"raw": entry})
    return dumps({
        "user_id": user_id,
        "cart": {"items": items, "item_count": len(items), "estimated_total": float(cart.get("total", 0))},
        "recent_history": recent,
        "server_type": SERVER_TYPE,
    })


DEFAULT_ITEMS = [CheckoutItem(product_id=42, quantity=2), CheckoutItem(product_id=1337, quantity=1)]


@mcp.tool(description="Process checkout: calculate total, update rate limit, record history", structured_output=False)
async def checkout(
    user_id: str = Field("user-00042", description="user id, e.g. user-00042"),
    items: list[CheckoutItem] = Field(default_factory=lambda: list(DEFAULT_ITEMS), min_length=1,
                                      description="items to buy: product_id and quantity"),
) -> str:
    redis, _ = Backends.get()
    try:
        user_num = int(user_id.rsplit("-", 1)[-1])
    except ValueError:
        user_num = 42
    body_items = [i.model_dump() for i in items]
    now = int(time.time())
    order_entry = dumps({"order_id": f"ORD-{user_id}-{now}", "items": body_items, "ts": now})
    # The POST and three separate Redis writes in parallel (the seed's majority).
    calc, rate_count, _, _ = await asyncio.gather(
        api_json("POST", "/cart/calculate", json={"user_id": user_id, "items": body_items}),
        redis.incr(f"bench:ratelimit:user-{user_num % 100:05d}"),
        redis.rpush(f"bench:history:{user_id}", order_entry),
        redis.zincrby("bench:popular", 1, f"product:{items[0].product_id}"),
    )
    if not isinstance(calc.get("total"), (int, float)):
        raise RuntimeError("api-service cart answer has no total")
    return dumps({"order_id": calc.get("order_id"), "user_id": user_id, "total": calc["total"],
                  "items_count": len(items), "rate_limit_count": rate_count, "status": "confirmed",
                  "server_type": SERVER_TYPE})


# The ASGI app uvicorn serves (path /mcp); its lifespan runs FastMCP's session manager.
app = mcp.streamable_http_app()
