// DarkroomBatch: job planning, concurrency, progress, reports and resume (see DESIGN.md).
import DarkroomCore
import DarkroomIO

/// Namespace for batch processing.
public enum Batch {}
