#!/usr/bin/env node
// The compiled CLI (npm run build) does the work; this file only gives npm a stable bin path.
import '../dist/cli/main.js';
