"""`ltm mcp`: the memory served to coding agents over the Model Context Protocol.

The top layer beside `cli`: it may import `ltm`; nothing but the CLI imports it. `service` keeps
one home warm, `tools` exposes it as MCP tools, `transport` serves them over stdio or HTTP.
"""
