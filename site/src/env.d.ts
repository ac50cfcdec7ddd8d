// For plain `tsc`, which cannot read .astro files: an import of a component is an Astro component.
// `astro check` resolves the real files (and their Props) first, so this never hides a component's types.
declare module "*.astro" {
  const Component: import("astro/runtime/server/index.js").AstroComponentFactory;
  export default Component;
}
