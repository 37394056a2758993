# The worker image for docker-compose.yml: the repo with its locked dependencies, run from source with tsx.
FROM node:22.23-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
CMD ["node", "--import", "tsx", "src/cli/main.ts", "worker"]
