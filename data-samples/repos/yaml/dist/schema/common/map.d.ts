import type { CollectionTag } from '../types';
export declare const map: CollectionTag;
