#!/usr/bin/env node
// Launcher for the resty-ingress controller. Node 24 runs the TypeScript
// sources directly (type stripping), so there is no build step: main.ts parses
// the command line and starts everything when imported.
import '../controller/src/main.ts';
