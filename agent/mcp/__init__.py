"""The MCP client: servers of config.toml and an approved .mcp.json, their tools offered."""
