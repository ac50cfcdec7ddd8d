// For plain `tsc`, which cannot read .astro files: an imported component is a function of its props.
// `astro check` resolves the real files (and their Props) first, so this never hides a component's types.
declare module "*.astro" {
  const Component: <Props>(props: Props) => unknown;
  export default Component;
}
