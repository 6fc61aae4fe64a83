/**
 * Import and export of other tools' formats, one module so the entry module can load both on
 * demand (they bring the format converters and the event schemas).
 */
export { detectFormat, jpToolsWarning, parseJsonText, readImport, saveImported } from "./import.js";
export { renderExport, writeExportFile, writeJpExport } from "./export.js";
export { detectAgentPath, readAgentImport, saveAgentImport, writeAgentExport } from "./agent-sessions.js";
export { recordAgentExport, updateFromAgentSession, updateFromOpencode } from "./agent-update.js";
