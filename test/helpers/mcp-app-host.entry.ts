// The ext-apps host bridge, bundled for the test host page (test/helpers/mcp-app-host.ts).
export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
