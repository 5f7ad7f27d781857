// DarkroomIO re-exports DarkroomFormats: callers of the decoders and writers see the format types
// (DecodeError, DNGRawDataLayout, TIFFError, …) without importing the parsing module themselves.
@_exported import DarkroomFormats
