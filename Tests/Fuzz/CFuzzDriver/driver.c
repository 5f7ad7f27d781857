// Declarations only (include/CFuzzDriver.h); the definitions are in libFuzzer.
