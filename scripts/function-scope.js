// A webpack plugin that moves a bundle's body from the module's top level into one function.
//
// k6's JavaScript engine (sobek) makes each function declared at the top level of an ES module
// for every VU, about 0.7 KB apiece, where the same declaration inside a function costs a VU
// close to nothing: 2,000 of them at the top level held 1.45 MB per VU, in a function 0.01 MB
// (k6 v1.3.0 and v2.2.0, 200 VUs paused; docs/fidelity.md, "Functions at a module's top level").
// A bundle declares about 200 functions at its top level, webpack's concatenated scope.
//
// The output keeps its imports first and its export list last:
//   import … from "k6…";
//   const { a, b } = (() => { <body>; return { a, b }; })();
//   export { a as default, b };
// The exported names are constants either way (webpack exports a scenario's functions and options).
const { Compilation, sources } = require('webpack');

const IMPORT = /^import [^;]*;\n/;
const EXPORT = /\nexport \{([^}]*)\};\s*$/;

/** The body of `code` in one function; throws when the layout is not the one webpack writes. */
function wrapped(code, file) {
  let head = '';
  let rest = code;
  for (let m = IMPORT.exec(rest); m !== null; m = IMPORT.exec(rest)) {
    head += m[0];
    rest = rest.slice(m[0].length);
  }
  const e = EXPORT.exec(rest);
  if (e === null) throw new Error(`${file}: no export list at its end; cannot put its body in a function`);
  const locals = e[1]
    .split(',')
    .map((s) => s.trim().split(/\s+as\s+/)[0])
    .filter((s) => s !== '');
  const list = [...new Set(locals)].join(', ');
  const body = rest.slice(0, e.index);
  return `${head}const { ${list} } = (() => {\n${body}\nreturn { ${list} };\n})();\nexport {${e[1]}};\n`;
}

class FunctionScopePlugin {
  apply(compiler) {
    compiler.hooks.thisCompilation.tap('FunctionScopePlugin', (compilation) => {
      compilation.hooks.processAssets.tap({ name: 'FunctionScopePlugin', stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_INLINE }, (assets) => {
        for (const file of Object.keys(assets)) {
          if (!file.endsWith('.js')) continue;
          compilation.updateAsset(file, new sources.RawSource(wrapped(assets[file].source().toString(), file)));
        }
      });
    });
  }
}

module.exports = { FunctionScopePlugin, wrapped };
