#!/usr/bin/env bash
# Checks that api/openapi.yaml works with openapi-typescript and
# openapi-fetch: installs the pinned packages (npm ci), generates the types
# from the document and type-checks the flow against them (strict), builds
# it, and, given a base URL and an API key, runs it against that service or
# mock.
#
# Usage: bash examples/typescript/check.sh [BASE_URL API_KEY]
# Needs Node.js 20 or later and npm; works from any directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

if [ $# -ne 0 ] && [ $# -ne 2 ]; then
	echo "usage: $0 [BASE_URL API_KEY]" >&2
	exit 2
fi

export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

echo "--- node $(node --version), npm $(npm --version)"

echo "--- npm ci"
npm ci

echo "--- typecheck (openapi-typescript, then tsc --noEmit)"
npm run --silent typecheck

echo "--- build (dist/)"
npm run --silent build

if [ $# -eq 2 ]; then
	echo "--- flow against $1"
	# The key goes through the environment, not the command line, so that
	# it shows neither in npm's echo of the command nor in the process list.
	PROFILESVC_BASE_URL="$1" PROFILESVC_API_KEY="$2" npm run --silent flow
else
	echo "--- flow not run: give BASE_URL and API_KEY to run it"
fi
