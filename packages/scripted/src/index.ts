export { ScriptedChatClient, type ScriptedChatClientOptions } from './scripted-chat-client.js';
export { scriptedClient } from './scripted-client.js';
export { SCRIPTED_FLAGS } from './scripted-flags.js';
