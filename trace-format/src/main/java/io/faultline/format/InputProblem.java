package io.faultline.format;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * What is wrong with an input a reader refused, for the command line's exit status: the user
 * can fix an unreadable file (its path, its permissions) or a misused one (the wrong kind of
 * file), not a corrupt one.
 */
public enum InputProblem
{
    /** It does not exist, or the OS refused to read it (permission, I/O error). */
    UNREADABLE,
    /** It can be read but does not parse: corrupt, truncated, malformed, of an unknown version. */
    CORRUPT,
    /** It is a well-formed file of another kind than the command reads (a monitoring record given as a trace). */
    MISUSED;

    /**
     * The OS's reason for {@code ex}, as strerror says it, lower case: Java's file exceptions
     * carry only the path in their message (a NoSuchFileException's message is the path alone).
     */
    public static String reason(final IOException ex)
    {
        if (ex instanceof AccessDeniedException)
        {
            return "permission denied";
        }
        if (ex instanceof NoSuchFileException)
        {
            return "no such file or directory";
        }
        if (ex instanceof NotDirectoryException)
        {
            return "not a directory";
        }
        if (ex instanceof FileAlreadyExistsException)
        {
            return "file exists";
        }
        if (ex instanceof DirectoryNotEmptyException)
        {
            return "directory not empty";
        }
        if (ex instanceof FileSystemException fs && fs.getReason() != null)
        {
            return lowerFirst(fs.getReason());
        }
        final String message = ex.getMessage();
        if (message == null || message.isBlank())
        {
            return ex.getClass().getSimpleName();
        }
        // "Permission denied", "Is a directory" from FileInputStream: "path (Reason)"
        final int paren = message.lastIndexOf(" (");
        return lowerFirst(paren > 0 && message.endsWith(")") ? message.substring(paren + 2, message.length() - 1)
            : message.lines().findFirst().orElse(message));
    }

    /** {@code path: reason}, the path the exception names if it names one, else {@code fallback}. */
    public static String describe(final IOException ex, final Object fallback)
    {
        final Object path = ex instanceof FileSystemException fs && fs.getFile() != null ? fs.getFile() : fallback;
        return path + ": " + reason(ex);
    }

    private static String lowerFirst(final String text)
    {
        return text.isEmpty() || (text.length() > 1 && Character.isUpperCase(text.charAt(1))) ? text
            : text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
    }
}
