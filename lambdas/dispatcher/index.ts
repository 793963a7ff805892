// Temporary stub so `cdk synth` has an entry point while the dispatcher is written.
export const handler = async () => ({ batchItemFailures: [] });
