# One image for the API, the worker, migrations and the sandbox (docker-compose.yml picks the command).

# Build: every dependency, then `npm run build` (tsc to dist/ and the prebuilt workflow bundle).
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime: production dependencies only (no tsx, no TypeScript, no test tools) and the compiled output, as a
# non-root user. The worker loads dist/workflow-bundle.js and never bundles at start.
FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
USER node
EXPOSE 3000
CMD ["node", "dist/src/server.js"]
