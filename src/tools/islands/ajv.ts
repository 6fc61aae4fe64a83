// ajv as a bundle of its own (dist/islands/ajv.cjs), loaded when a local tool's schema is compiled.
export { Ajv } from "ajv";
