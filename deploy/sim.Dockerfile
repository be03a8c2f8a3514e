# The simulated SGLang / vLLM server (sim/) as a container image. Build from the repository root:
#   docker build -f deploy/sim.Dockerfile -t k6-llm-bench-sim .
#   docker run --rm -p 30000:30000 k6-llm-bench-sim                      # SGLang engine, DFlash profile
#   docker run --rm -p 8000:8000 k6-llm-bench-sim --engine vllm --spec mtp --port 8000
# Arguments after the image name are the simulator's flags (npm run sim -- --help lists them).
#
# tsx, which runs the TypeScript in development, is a dev dependency; rather than ship the dev
# toolchain, the build stage compiles sim/ with the project's own compiler settings and the image
# runs plain JavaScript on node. The simulator uses Node built-ins only, so the final image has no
# node_modules at all.

FROM node:20-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.node.json ./
COPY deploy/sim.tsconfig.json deploy/
COPY sim/ sim/
RUN npx tsc -p deploy/sim.tsconfig.json --outDir /out

FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /out/sim/ sim/
USER node
# The CLI's default ports: 30000 for --engine sglang, 8000 for --engine vllm.
EXPOSE 30000 8000
# The simulator listens on loopback by default, which other containers cannot reach; a later
# --host in the arguments still wins.
ENTRYPOINT ["node", "sim/cli.js", "--host", "0.0.0.0"]
CMD ["--engine", "sglang", "--spec", "dflash", "--port", "30000"]
