// The part of jStat (https://github.com/jstat/jstat; no published types) the pipeline uses.
declare module "jstat" {
  interface Distribution {
    pdf(x: number, mean: number, sd: number): number;
    cdf(x: number, mean: number, sd: number): number;
    inv(p: number, mean: number, sd: number): number;
  }
  interface StudentT {
    cdf(x: number, dof: number): number;
    inv(p: number, dof: number): number;
  }
  const jStat: { normal: Distribution; studentt: StudentT };
  export default jStat;
}
