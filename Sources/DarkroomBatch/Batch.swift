// DarkroomBatch: job planning, concurrency and reports live here (see DESIGN.md).
import DarkroomCore
import DarkroomIO

/// Namespace for batch processing.
public enum Batch {}
