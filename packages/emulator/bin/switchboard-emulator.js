#!/usr/bin/env node
// A checked-in launcher, so installing the workspace links the bin before dist/ is built.
import '../dist/cli.js';
