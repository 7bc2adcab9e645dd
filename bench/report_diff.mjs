// Prints the semantic diff benchmark (bench/diff): Ensemble's `ensemble
// diff` beside FontForge's sfddiff on one pair of fonts, warm and in fresh
// processes, with ratios (FontForge's time over Ensemble's: above 1,
// Ensemble is faster), and what each reported.
import { readFileSync } from "node:fs";

const [ensPath, ffPath, coldPath, ensText, ffText] = process.argv.slice(2);
const ens = JSON.parse(readFileSync(ensPath, "utf8"));
const ff = JSON.parse(readFileSync(ffPath, "utf8"));
const cold = readFileSync(coldPath, "utf8").trim().split("\n").map((l) => JSON.parse(l));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (s) => (s * 1000).toFixed(1).padStart(8) + " ms";
const ratio = (ffs, es) => (ffs / es).toFixed(1).padStart(6) + "x";
const lines = (p) => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).length;

console.log("Semantic diff of DejaVuSansMono 358190f -> ae12ffe (" + ens.objects + " objects in the two fonts)");
console.log("                                     Ensemble     FontForge   FF/Ens");
const cEns = median(cold.map((c) => c.ensemble_s)), cFf = median(cold.map((c) => c.sfddiff_s));
console.log("fresh process, whole command    " + ms(cEns) + "   " + ms(cFf) + "  " + ratio(cFf, cEns) +
  "   (ensemble diff vs sfddiff, wall, median of " + cold.length + ")");
const uEns = median(cold.map((c) => c.ensemble_cpu_s)), uFf = median(cold.map((c) => c.sfddiff_cpu_s));
console.log("fresh process, CPU time         " + ms(uEns) + "   " + ms(uFf) + "  " + ratio(uFf, uEns) +
  "   (user + system)");
console.log("warm, the two loads             " + ms(ens.load_s) + "   " + ms(ff.load_s) + "  " + ratio(ff.load_s, ens.load_s));
const eDiff = ens.diff_s + ens.text_s;
console.log("warm, the comparison            " + ms(eDiff) + "   " + ms(ff.diff_s) + "  " + ratio(ff.diff_s, eDiff) +
  "   (change list and text vs CompareFonts)");
console.log("warm, loads and comparison      " + ms(ens.load_s + eDiff) + "   " + ms(ff.load_s + ff.diff_s) + "  " +
  ratio(ff.load_s + ff.diff_s, ens.load_s + eDiff));
console.log("  (the model's diff of the pair, the transaction --txn writes: " + ms(ens.txn_s).trim() + ")");
console.log("reported: Ensemble " + ens.changes + " changes in " + lines(ensText) + " lines; sfddiff " +
  lines(ffText) + " lines");
