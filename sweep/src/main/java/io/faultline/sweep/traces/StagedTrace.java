package io.faultline.sweep.traces;

import java.io.Serializable;

/**
 * A trace as the sweep's tasks find it: a {@link KeysFile} at a Hadoop URI that every executor
 * reads ({@code file:} for this machine or a shared mount, {@code hdfs:}, ...), or one the driver
 * shipped with {@code SparkContext.addFile}, found on each executor by {@code SparkFiles.get}.
 *
 * @param name       the trace's name in reports: its file name, as simulate shows it
 * @param location   the keys file's URI, or its shipped file name if {@code shipped}
 * @param shipped    whether executors find it with SparkFiles rather than at its URI
 * @param references keys in it
 * @param pageSize   bytes per page of its keys
 */
public record StagedTrace(String name, String location, boolean shipped, long references, int pageSize)
    implements Serializable
{
}
