<?php
// One reply (to the topic of forum REPLY_BOARD whose last post is the oldest: the last row of the
// forum's last page, so the reply moves it to the top of page 1) and one new topic in forum
// NEW_BOARD, both by USER and dated now, through phpBB's submit_post() (what posting.php calls),
// as tests/archive/lab/reply.php does.
//   usage (as www-data, with the site's PHP):  php change_phpbb.php PHPBB_ROOT REPLY_BOARD NEW_BOARD TAG [USER=bob]
// REPLY_BOARD / NEW_BOARD: a substring of the forum's name. Prints one JSON line.
$root = rtrim($argv[1], '/');
[$reply_board, $new_board, $tag] = [$argv[2], $argv[3], $argv[4]];
$username = $argv[5] ?? 'bob';
define('IN_PHPBB', true);
$phpbb_root_path = $root . '/';
$phpEx = 'php';
chdir($root);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/change.php';
$_SERVER['SCRIPT_NAME'] = '/change.php';
require $phpbb_root_path . 'common.php';
require_once $phpbb_root_path . 'includes/functions_posting.php';
$user->session_begin(false);
$auth->acl($user->data);
$user->setup(['posting']);

function row($sql) { global $db; $r = $db->sql_query($sql); $row = $db->sql_fetchrow($r); $db->sql_freeresult($r); return $row; }
function forum_of($name) {
    global $db;
    $f = row('SELECT forum_id, forum_name FROM ' . FORUMS_TABLE . " WHERE forum_type = 1 AND forum_name " . $db->sql_like_expression($db->get_any_char() . $name . $db->get_any_char()));
    if (!$f) { fwrite(STDERR, "no forum $name\n"); exit(1); }
    return $f;
}
$poster = row('SELECT * FROM ' . USERS_TABLE . " WHERE username_clean = '" . $db->sql_escape(utf8_clean_string($username)) . "'");
$user->data = array_merge($user->data, $poster);  // act as the user, as a logged-in request would
$user->ip = '127.0.0.1';
$auth->acl($user->data);
$now = time();
$post = function ($mode, $forum, $topic_id, $subject, $text) use ($poster, $now) {
    $uid = $bitfield = $options = '';
    generate_text_for_storage($text, $uid, $bitfield, $options, true, true, true);
    $data = [
        'forum_id' => (int)$forum['forum_id'], 'topic_id' => $topic_id, 'icon_id' => 0,
        'enable_bbcode' => true, 'enable_smilies' => true, 'enable_urls' => true, 'enable_sig' => true,
        'message' => $text, 'message_md5' => md5($text), 'bbcode_bitfield' => $bitfield, 'bbcode_uid' => $uid,
        'post_edit_locked' => 0, 'topic_title' => $subject, 'notify_set' => false, 'notify' => false,
        'post_time' => $now, 'forum_name' => $forum['forum_name'], 'enable_indexing' => true,
        'force_approved_state' => ITEM_APPROVED, 'force_visibility' => ITEM_APPROVED,
        'attachment_data' => [], 'poster_ip' => '127.0.0.1',
    ];
    $poll = [];
    submit_post($mode, $subject, $poster['username'], POST_NORMAL, $poll, $data);
    return [(int)$data['topic_id'], (int)$data['post_id']];
};
$rf = forum_of($reply_board);
$topics = [];
$r = $db->sql_query('SELECT topic_id, topic_title FROM ' . TOPICS_TABLE . ' WHERE forum_id = ' . (int)$rf['forum_id']
                    . ' AND topic_visibility = 1 ORDER BY topic_type DESC, topic_last_post_time DESC, topic_last_post_id DESC');
while ($t = $db->sql_fetchrow($r)) { $topics[] = $t; }
$target = end($topics);
$tpp = (int)$config['topics_per_page'];
[, $reply_pid] = $post('reply', $rf, (int)$target['topic_id'], 'Re: ' . $target['topic_title'],
                       "Incremental lab reply $tag, posted " . gmdate('Y-m-d H:i:s', $now) . " UTC. 增量抓取测试回复。");
$nf = forum_of($new_board);
[$new_tid, $new_pid] = $post('post', $nf, 0, "Incremental lab thread $tag 增量测试",
                             "A new thread for the incremental lab $tag, posted " . gmdate('Y-m-d H:i:s', $now) . " UTC.");
echo json_encode([
    'reply' => ['thread_id' => (string)$target['topic_id'], 'title' => $target['topic_title'], 'board' => $rf['forum_name'],
                'board_id' => (string)$rf['forum_id'], 'row_before' => count($topics), 'threads_in_board' => count($topics),
                'board_page_before' => intdiv(count($topics) - 1, $tpp) + 1, 'post_id' => (string)$reply_pid],
    'new_thread' => ['thread_id' => (string)$new_tid, 'board' => $nf['forum_name'], 'board_id' => (string)$nf['forum_id'],
                     'post_ids' => [(string)$new_pid]],
    'time' => gmdate('c', $now), 'user' => $poster['username']], JSON_UNESCAPED_UNICODE), "\n";
