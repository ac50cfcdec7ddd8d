module samebox/bench-scripts/studies/mcp-servers/api-service

go 1.26.8
