import type { ScalarTag } from '../types';
export declare const intTime: ScalarTag;
export declare const floatTime: ScalarTag;
export declare const timestamp: ScalarTag & {
    test: RegExp;
};
