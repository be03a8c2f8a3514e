// Constants that webpack's DefinePlugin writes into the bundles (webpack.config.js). lib/k6/ runs
// only inside a bundle, so they are always defined there.

/** true in the sse bundles (dist/sse/*.js: TRANSPORT defaults to sse, xk6-sse named literally), false in dist/*.js. */
declare const __SSE_BUNDLE__: boolean;
