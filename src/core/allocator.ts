import { nativeBinding } from '../pack/packer.js';

/**
 * Loads the native addon, whose loading limits glibc's malloc to two arenas for the threads
 * started after it (native/binding/binding.cpp, limitMallocArenas). A job calls this before it
 * starts its worker threads: each would otherwise get an arena of its own and keep what it freed
 * resident there (about 100 MB of a run's peak RSS on bench:run's full corpus, at the same CPU).
 */
export function limitAllocatorArenas(): void {
  nativeBinding();
}
