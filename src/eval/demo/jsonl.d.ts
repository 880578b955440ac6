// Session files imported as text (`with { type: "text" }`), so `bun build --compile` embeds them.
declare module "*.jsonl" {
  const text: string;
  export default text;
}
