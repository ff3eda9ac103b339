import { Scalar } from '../nodes/Scalar';
import type { StringifyContext } from './stringify';
interface StringifyScalar {
    value: string;
    comment?: string | null;
    type?: string;
}
export declare function stringifyString(item: Scalar | StringifyScalar, ctx: StringifyContext, onComment?: () => void, onChompKeep?: () => void): string;
export {};
