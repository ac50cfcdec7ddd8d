package samebox.mcp.jvm;

/**
 * One checkout line as the tool receives it. Component names are the JSON names (snake case) so the
 * SDKs' schema generators and Jackson need no annotations.
 */
public record CheckoutItem(int product_id, int quantity) {}
