/**
 * The parts of the official MCP SDK (`@modelcontextprotocol/sdk`) `cxc mcp` uses, in one module:
 * the build makes it an island (dist/islands/mcp.cjs), so only `cxc mcp` ever loads the SDK.
 */
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
export { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
