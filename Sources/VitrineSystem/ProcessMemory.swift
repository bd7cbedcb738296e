import CLinuxEvents

/// How the daemon's process uses memory.
public enum ProcessMemory {
    /// Makes large blocks (decoded images, frames, file contents: 256 KiB and more) their own
    /// mappings, given back to the system as soon as they are freed, so that resident memory
    /// follows the image budget down instead of keeping its high-water mark. Call once at
    /// start, before other threads allocate.
    public static func returnLargeBlocks() {
        _ = vitrine_fix_mmap_threshold(256 << 10)
    }
}
