# The service's image (docs/OPERATIONS.md, "With Docker"). After the workspaces' manifests:
# - build: every dependency, the type check and `npm run build` (compiled JavaScript, no TypeScript
#   at run time: docs/adr/016-compiled-output-for-production.md);
# - deps: the production dependencies of the four apps, and nothing else;
# - the image itself: Node.js 24 LTS, those dependencies, the compiled apps and the migrations, run as
#   the unprivileged `node` user with NODE_ENV=production and no npm between Docker and node.
# By default it runs `npm start`'s supervisor (all four apps in one container); docker-compose.yml
# runs each app in its own container instead.

FROM node:24-slim AS manifests
WORKDIR /app
# The manifests alone, so that each install is cached until a dependency changes.
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/client/package.json packages/client/
COPY packages/core/package.json packages/core/
COPY apps/api/package.json apps/api/
COPY apps/scheduler/package.json apps/scheduler/
COPY apps/executor/package.json apps/executor/
COPY apps/notifier/package.json apps/notifier/
COPY apps/cli/package.json apps/cli/

FROM manifests AS build
# Prisma's CLI (run by the postinstall step to generate the client) looks for OpenSSL.
RUN apt-get update \
 && apt-get install -y --no-install-recommends openssl ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# The postinstall step generates the Prisma client from the schema.
COPY prisma.config.ts ./
COPY prisma/schema.prisma prisma/
COPY scripts/prisma-generate.mjs scripts/
RUN npm ci
COPY . .
RUN npm run typecheck && npm run build

FROM manifests AS deps
# The four apps' dependencies only (not the CLI's esbuild and tsx). --omit=optional also leaves out
# the Prisma CLI and TypeScript, which @prisma/client names as optional peers, and the embedded
# PostgreSQL: a container uses a PostgreSQL server of its own. No install scripts: nothing here
# builds, and the Prisma client was generated in the build stage. Prisma's runtime ships a query
# compiler for every database it supports; only PostgreSQL's is kept.
RUN npm ci --omit=dev --omit=optional --ignore-scripts \
      --workspace apps/api --workspace apps/scheduler --workspace apps/executor --workspace apps/notifier \
 && find node_modules/@prisma/client/runtime -name 'query_compiler_*' ! -name '*.postgresql.*' -delete \
 && find node_modules/@prisma/client/runtime -name '*.map' -delete \
 && npm cache clean --force

FROM node:24-slim
ENV NODE_ENV=production
# No NODE_OPTIONS here: the default command's supervisor gives the scheduler and the notifier an
# 8 MB young generation and leaves the API and the executor V8's default (docs/OPERATIONS.md,
# "Memory"); the compose files set it per container.
ENV PORT=3000
WORKDIR /app
# Owned by root and read-only to the service's user: the service writes nothing to disk.
COPY --from=deps /app ./
COPY --from=build /app/prisma/migrations prisma/migrations
COPY --from=build /app/packages/contracts/dist packages/contracts/dist
COPY --from=build /app/packages/core/dist packages/core/dist
COPY --from=build /app/apps/api/dist apps/api/dist
COPY --from=build /app/apps/scheduler/dist apps/scheduler/dist
COPY --from=build /app/apps/executor/dist apps/executor/dist
COPY --from=build /app/apps/notifier/dist apps/notifier/dist
COPY --from=build /app/scripts/dist scripts/dist
USER node
EXPOSE 3000
CMD ["node", "scripts/dist/start.js"]
