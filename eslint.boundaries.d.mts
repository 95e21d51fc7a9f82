// Types for eslint.boundaries.mjs (plain JavaScript, because ESLint loads it without a TypeScript loader).
export interface Boundary {
  id: string;
  regex: string;
  appliesTo: string[];
  owner?: string;
  allowTypeImports?: boolean;
  message: string;
}
export declare const ZONES: { name: string; files: string[] }[];
export declare const BOUNDARIES: Boundary[];
export declare const boundaryConfigs: object[];
