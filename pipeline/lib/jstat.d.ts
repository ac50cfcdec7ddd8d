// The part of jStat (https://github.com/jstat/jstat; no published types) the pipeline uses.
declare module "jstat" {
  interface Distribution {
    pdf(x: number, mean: number, sd: number): number;
    cdf(x: number, mean: number, sd: number): number;
    inv(p: number, mean: number, sd: number): number;
  }
  const jStat: { normal: Distribution };
  export default jStat;
}
