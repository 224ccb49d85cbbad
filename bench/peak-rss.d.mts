/** The peak RSS of this process's own memory, in MB (see peak-rss.mjs). */
export declare function peakRssMB(): number;
