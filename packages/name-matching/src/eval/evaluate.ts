#!/usr/bin/env node
// Evaluation command: node dist/eval/evaluate.js [--errors] [path/to/labelled.csv]
import { pathToFileURL } from 'node:url';
import { createNameMatcher } from '../matcher.js';
import { DEV_SET_URL, loadLabelledCases } from './dataset.js';
import { evaluate, formatReport } from './metrics.js';

const args = process.argv.slice(2);
const showErrors = args.includes('--errors');
const path = args.find((a) => !a.startsWith('--'));
const cases = loadLabelledCases(path ? pathToFileURL(path) : DEV_SET_URL);
const report = evaluate(createNameMatcher(), cases);
console.log(formatReport(report, showErrors));
