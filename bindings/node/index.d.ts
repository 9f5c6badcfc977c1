// Types of sqlite-weights (index.js): load(db) and getLoadablePath().

/** What load() needs of a connection: better-sqlite3's Database, node:sqlite's DatabaseSync. */
export interface ExtensionLoader {
  loadExtension(path: string, entryPoint?: string): unknown;
  /** node:sqlite only: turned on for the load and off again. */
  enableLoadExtension?(allow: boolean): void;
}

/** The absolute path of the module, weights.so; throws when it was not built. */
export declare function getLoadablePath(): string;

/** Load sqlite-weights into db; throws TypeError for anything else than a connection. */
export declare function load(db: ExtensionLoader): void;

/** The package's version, the Makefile's VERSION. */
export declare const version: string;
