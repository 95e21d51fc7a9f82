// Types for eslint.function-size.mjs (plain JavaScript, because ESLint loads it without a TypeScript loader).
export declare const MAX_FUNCTION_LINES: number;
export declare const functionSizeConfigs: object[];
