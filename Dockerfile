# The whole service in one image: `npm start` migrates the database, then runs the API and the
# scheduler, executor and notifier workers under one supervisor (scripts/start.ts).
FROM node:20-slim

# Prisma's CLI (run by the postinstall step to generate the client) looks for OpenSSL.
RUN apt-get update \
 && apt-get install -y --no-install-recommends openssl ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# The whole tree first: `npm ci` installs every workspace (apps/*, packages/*) and its
# postinstall step needs prisma/schema.prisma and scripts/prisma-generate.mjs.
COPY . .

# Dev dependencies are needed at run time (the apps run through tsx), so NODE_ENV stays unset here.
RUN npm ci && npm cache clean --force

ENV PORT=3000
EXPOSE 3000

CMD ["npm", "start"]
