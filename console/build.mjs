// Builds the console into server/tasklife_server/http/console/ (or the folder given as the first
// argument, which the drift test uses): one esbuild bundle, plus the page and the style sheet.
// The output depends only on the sources and the pinned esbuild, so the committed files can be
// compared with a fresh build.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "..", "server", "tasklife_server", "http", "console"));

// The generated code lives in clients/typescript/src/gen, whose own node_modules may or may not
// exist: always bundle this package's single copy of the runtime libraries instead.
const ownRuntime = {
  name: "own-runtime",
  setup(build) {
    build.onResolve({ filter: /^@(bufbuild|connectrpc)\// }, (args) => {
      if (args.pluginData === "own-runtime") return undefined;
      return build.resolve(args.path, { kind: args.kind, resolveDir: here, pluginData: "own-runtime" });
    });
  },
};

mkdirSync(out, { recursive: true });
await esbuild.build({
  absWorkingDir: here,
  entryPoints: ["src/main.ts"],
  outfile: join(out, "console.js"),
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
  plugins: [ownRuntime],
});
for (const name of ["index.html", "console.css"]) copyFileSync(join(here, "src", name), join(out, name));
