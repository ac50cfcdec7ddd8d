#!/usr/bin/env python3
"""The EC2 Linux on-demand price of one instance type in one region, from the AWS Price List API
(pricing:GetProducts), looked up once per dispatch and kept in its record, so a run's cost is priced
at what AWS listed when it was launched. A failed lookup gives usd_per_hour null and the reason: the
cost then comes from data/prices/ec2-on-demand.csv, as without a lookup."""
from __future__ import annotations

import json
from datetime import datetime, timezone

from botocore.exceptions import BotoCoreError, ClientError

# The Price List API answers in these regions only; us-east-1 serves every region's prices.
PRICING_REGION = "us-east-1"
SOURCE = "AWS Price List API (pricing:GetProducts, AmazonEC2)"


def filters(region: str, instance_type: str) -> list[dict]:
    wanted = {"instanceType": instance_type, "regionCode": region, "operatingSystem": "Linux", "tenancy": "Shared",
              "preInstalledSw": "NA", "capacitystatus": "Used", "licenseModel": "No License required"}
    return [{"Type": "TERM_MATCH", "Field": field, "Value": value} for field, value in wanted.items()]


def hourly_usd(product: dict) -> float | None:
    for term in product.get("terms", {}).get("OnDemand", {}).values():
        for dimension in term.get("priceDimensions", {}).values():
            usd = dimension.get("pricePerUnit", {}).get("USD")
            if dimension.get("unit") == "Hrs" and usd is not None and float(usd) > 0:
                return float(usd)
    return None


def lookup(pricing, region: str, instance_type: str, now: datetime | None = None) -> dict:
    """{"usd_per_hour", "price_date", "price_source"} or, when AWS does not say, usd_per_hour null and a reason."""
    date = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%d")
    block = {"usd_per_hour": None, "price_date": date, "price_source": SOURCE, "instance_type": instance_type, "region": region}
    try:
        answer = pricing.get_products(ServiceCode="AmazonEC2", Filters=filters(region, instance_type), MaxResults=10)
    except (ClientError, BotoCoreError) as error:
        return {**block, "reason": f"price lookup failed: {error}"}
    prices = {hourly_usd(json.loads(item)) for item in answer.get("PriceList", [])} - {None}
    if len(prices) != 1:
        return {**block, "reason": f"the Price List API gave {len(prices)} on-demand Linux prices for {instance_type} in {region}, not one"}
    return {**block, "usd_per_hour": prices.pop()}
