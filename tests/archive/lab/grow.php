<?php
// Grows a seeded lab phpBB (../../../../shared/engines/phpbb/seed.php) into a forum of realistic
// size, through phpBB's own submit_post() as seed.php does: N topics over the boards guests can
// read, by the lab's users, each with a deterministic number of replies (seeded RNG), bodies of a
// few paragraphs, post times in the past (2023-01 .. 2026-10, so the lab's own 2024 threads sit in
// the middle of their boards). Also sets topics_per_page.
//   usage (as www-data, with the instance's PHP, as up.sh runs seed.php):
//     php grow.php PHPBB_ROOT TOPICS_PER_PAGE [TOPICS=300] [SEED=20240301] [MAX_REPLIES=40]
// Guarded: the topics are added once (config 'lab_grow' holds what was added); later runs only
// set topics_per_page, so the same board can be measured at 25 and at 3 topics per page.
$root = rtrim($argv[1] ?? '', '/');
$per_page = (int)($argv[2] ?? 0);
$ntopics = (int)($argv[3] ?? 300);
$seed = (int)($argv[4] ?? 20240301);
$max_replies = (int)($argv[5] ?? 40);
if (!$root || $per_page < 1) { fwrite(STDERR, "usage: php grow.php PHPBB_ROOT TOPICS_PER_PAGE [TOPICS] [SEED] [MAX_REPLIES]\n"); exit(2); }
function say($m) { fwrite(STDERR, "[lab/grow] $m\n"); }

$script = 'grow.php';
require __DIR__ . '/boot.php';
function rows($sql) { global $db; $r = $db->sql_query($sql); $all = $db->sql_fetchrowset($r); $db->sql_freeresult($r); return $all; }
function become($uid) {  // act as this user (session data + permissions), as seed.php does
    global $user, $auth;
    $user->data = array_merge($user->data, row('SELECT * FROM ' . USERS_TABLE . ' WHERE user_id = ' . (int)$uid));
    $user->ip = '127.0.0.1';
    $auth->acl($user->data);
}

$config->set('topics_per_page', $per_page);
if ($config['lab_grow'] ?? '') {
    $cache->purge();
    say("topics already added ({$config['lab_grow']}); topics_per_page set to $per_page");
    exit(0);
}
if (($config['acceptance_seed'] ?? '') === '') { say('not a seeded lab board (run up.sh first)'); exit(1); }

// ---- who and where -----------------------------------------------------------
$users = [];
foreach (['alice', 'bob', 'carol', 'dave', 'erin'] as $name) {
    $r = row('SELECT user_id FROM ' . USERS_TABLE . " WHERE username_clean = '$name'");
    if ($r) { $users[$name] = (int)$r['user_id']; }
}
$admin = row('SELECT user_id FROM ' . USERS_TABLE . " WHERE username_clean = 'admin'");
// the boards guests can read (acl_getf as phpBB computes it for the anonymous user)
$guest = new \phpbb\auth\auth();
$guest->acl(row('SELECT * FROM ' . USERS_TABLE . ' WHERE user_id = ' . ANONYMOUS));
$readable = array_keys($guest->acl_getf('f_read', true));
$boards = [];
foreach (rows('SELECT forum_id, forum_name FROM ' . FORUMS_TABLE . ' WHERE forum_type = ' . FORUM_POST . ' ORDER BY left_id') as $f) {
    if (in_array((int)$f['forum_id'], $readable, true)) { $boards[(int)$f['forum_id']] = $f['forum_name']; }
}
if (!$boards || !$users) { say('no public board or no lab user'); exit(1); }
say('public boards: ' . implode(', ', array_keys($boards)) . '; users: ' . implode(' ', array_keys($users)));

// ---- text ----------------------------------------------------------------------
$EN = [
    "The quick brown fox jumps over the lazy dog.",
    "Scrapy spiders should respect robots.txt and crawl politely.",
    "Pagination links are the hardest part of forum extraction.",
    "This sentence mentions caching, retries and exponential backoff.",
    "Unicode handling must survive a round trip through the pipeline.",
    "Quoted replies often repeat text from earlier posts in the thread.",
    "Timestamps may be relative, absolute, or hidden in a title attribute.",
    "A good extractor ignores signatures, ads and navigation chrome.",
    "I tried lowering the concurrency to two requests per host and the errors went away.",
    "Has anyone measured how much the HTTP cache saves on a second run?",
    "The board index shows the last post of every forum, so it changes whenever someone replies.",
    "We keep the raw pages in a web archive so we can parse them again later.",
    "Session ids in links are a classic trap: every visit looks like a new URL.",
    "Thanks, that fixed it for me as well.",
    "My proxy pool rotates every ten minutes, which confuses the login cookies.",
    "Most forums sort topics by the time of their last post, newest first.",
    "You can read the post date from the time element, it carries an ISO timestamp.",
    "Remember to set a descriptive user agent with a contact address.",
    "The sitemap only lists the first page of each thread, unfortunately.",
    "After the upgrade the markup of the quote boxes changed completely.",
    "Deduplicating by canonical URL removed about a third of our requests.",
    "I would not parse the print view, it drops the signatures but also the post ids.",
    "Conditional requests only help when the server sends validators.",
    "It took the whole weekend, but the incremental crawl finally works.",
];
$ZH = [
    "今天我们讨论如何抓取论坛的帖子和回复。",
    "中文文本需要正确的编码处理，否则会出现乱码。",
    "分页是论坛爬虫最容易出错的地方之一。",
    "请注意引用的内容不应重复计入正文。",
    "博客文章通常带有标签、分类和评论。",
    "时间格式有很多种，比如“三天前”或者“2024年3月5日”。",
    "代码块里的缩进和空格必须原样保留。",
    "图片标签应该被识别，但不应当作正文文字。",
    "我们每天晚上增量抓取一次，只下载有变化的页面。",
    "谢谢分享，这个方法在我这里也有效。",
    "有没有人遇到过验证码的问题？",
    "建议把并发数调低一点，服务器压力会小很多。",
];
$CODE = [
    "def parse(self, response):\n    for post in response.css('div.post'):\n        yield {'text': post.css('::text').get()}",
    "scrapy crawl forum -O posts.jsonl\nwc -l posts.jsonl",
    '{"thread": 42, "posts": [1, 2, 3], "title": "测试"}',
    "curl -sI 'http://127.0.0.1/viewforum.php?f=2' | grep -i -e etag -e last-modified",
];
$TOPICS = [
    'How do I paginate %s? 如何分页？', 'Encoding problems with %s 编码问题', 'Share your %s setup 分享你的配置',
    'Dates and time zones in %s 日期与时区', 'Login walls on %s 登录问题', 'Incremental crawls of %s 增量抓取',
    'Proxies and %s 代理', 'Parsing quotes in %s 引用解析', 'Rate limits on %s 限速', 'Archiving %s 网页存档',
];
$THINGS = ['phpBB', 'Discuz!', 'a big board', 'old threads', 'the board index', 'mobile pages', 'image posts',
           'Chinese forums', 'sticky topics', 'long threads', 'RSS feeds', 'user profiles'];
function pick($a) { return $a[mt_rand(0, count($a) - 1)]; }
function sentences($n) { global $EN, $ZH; $s = []; for ($i = 0; $i < $n; $i++) { $s[] = mt_rand(0, 3) ? pick($EN) : pick($ZH); } return implode(' ', $s); }
function body($quote_author, $quote_text) {  // a few paragraphs of BBCode, sometimes a quote, code or list
    global $CODE;
    $parts = [];
    if ($quote_author !== null && mt_rand(1, 4) == 1) { $parts[] = "[quote=\"$quote_author\"]$quote_text" . "[/quote]"; }
    $paras = mt_rand(1, 4);
    for ($i = 0; $i < $paras; $i++) { $parts[] = sentences(mt_rand(2, 5)); }
    if (mt_rand(1, 7) == 1) { array_splice($parts, 1, 0, ["[code]" . pick($CODE) . "[/code]"]); }
    if (mt_rand(1, 10) == 1) { $parts[] = "[list]\n[*]" . sentences(1) . "\n[*]" . sentences(1) . "\n[*]" . sentences(1) . "\n[/list]"; }
    return implode("\n\n", $parts);
}
$text = function ($s) {
    $uid = $bitfield = $options = '';
    generate_text_for_storage($s, $uid, $bitfield, $options, true, true, true);
    return [$s, $uid, $bitfield, $options];
};

// ---- topics and replies (submit_post, as posting.php calls it) -----------------
mt_srand($seed);
$t0 = gmmktime(0, 0, 0, 1, 1, 2023);
$t1 = gmmktime(0, 0, 0, 10, 31, 2026);
$fids = array_keys($boards);
$names = array_keys($users);
$posts = 0;
$started = microtime(true);
for ($t = 1; $t <= $ntopics; $t++) {
    $fid = pick($fids);
    $title = sprintf(pick($TOPICS), pick($THINGS)) . " #$t";
    $replies = mt_rand(1, $max_replies);
    $time = mt_rand($t0, $t1);
    $tid = 0;
    $prev = [null, null];
    for ($k = 0; $k <= $replies; $k++) {
        $author = pick($names);
        $raw = body($prev[0], $prev[1]);
        $subject = $k ? "Re: $title" : $title;
        become($users[$author]);
        [$message, $uid, $bitfield, $options] = $text($raw);
        $data = [
            'forum_id' => $fid, 'topic_id' => $tid, 'icon_id' => 0,
            'enable_bbcode' => true, 'enable_smilies' => true, 'enable_urls' => true, 'enable_sig' => true,
            'message' => $message, 'message_md5' => md5($message),
            'bbcode_bitfield' => $bitfield, 'bbcode_uid' => $uid,
            'post_edit_locked' => 0, 'topic_title' => $subject, 'notify_set' => false, 'notify' => false,
            'post_time' => $time, 'forum_name' => $boards[$fid],
            'enable_indexing' => true, 'force_approved_state' => ITEM_APPROVED, 'force_visibility' => ITEM_APPROVED,
            'attachment_data' => [], 'poster_ip' => '127.0.0.1',
        ];
        $poll = [];
        submit_post($tid ? 'reply' : 'post', $subject, $author, POST_NORMAL, $poll, $data);
        $tid = (int)$data['topic_id'];
        $prev = [$author, sentences(1)];
        $time = min($time + mt_rand(300, 2 * 86400), $t1 + 20 * 86400);  // replies minutes to days apart
        $posts++;
    }
    if ($t % 50 == 0) { say(sprintf('%d topics, %d posts, %.0f s', $t, $posts, microtime(true) - $started)); }
}
become($admin['user_id']);
sync('forum', '', '', false, true);  // phpBB's own resync, as seed.php ends
$config->set('lab_grow', "$ntopics topics, $posts posts, seed $seed, replies 1..$max_replies");
$cache->purge();
say("added $ntopics topics, $posts posts; topics_per_page $per_page");
