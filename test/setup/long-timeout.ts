// Integration and infra tests run real emulators, real time and CDK synthesis.
jest.setTimeout(90_000);
